"""The Flask app for the table and the phones, and the command line."""
