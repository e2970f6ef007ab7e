"""A run's output directory: its lock, the files earlier runs left, its records and output.xml read
back."""
