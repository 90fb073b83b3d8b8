"""Making one camera and table read well: the printable mat, profiles, the tools."""
