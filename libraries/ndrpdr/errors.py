"""The root of every exception this project raises on purpose."""


class NdrPdrError(Exception):
    """Base class of all ndrpdr errors.

    Messages name the file, node, field or value at fault and, where it
    helps, say what to do about it.
    """
