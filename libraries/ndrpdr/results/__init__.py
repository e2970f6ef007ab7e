"""Results: the versioned JSON record of one NDR/PDR search."""
