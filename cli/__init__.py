"""The pforge command-line interface."""
