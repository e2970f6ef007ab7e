"""Node access: run commands and copy files on a node (local, netns, SSH)."""
