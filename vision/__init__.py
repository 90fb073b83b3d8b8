"""Reads dice from images: OpenCV finds them, a small ONNX model reads each top face."""
