"""Sextant's errors as Python exceptions.

Every error the C++ library raises (``sextant::Error``) arrives as a subclass of
:class:`sextant.Error` with the library's message unchanged (the same text the ``sextant``
command prints). Each also derives from the built-in exception a Python user would catch:

==================  =====================  ===========================================
C++ ErrorKind       class                  also a
==================  =====================  ===========================================
bad_input           ``BadInputError``      ``ValueError`` (NaN, a malformed file, ...)
bad_argument        ``BadArgumentError``   ``ValueError`` (a parameter out of range)
io                  ``IOFailure``          ``OSError`` (cannot open, read or write)
unsupported         ``UnsupportedError``   ``RuntimeError`` (e.g. no GPU in this build)
resource            ``ResourceError``      ``MemoryError`` (host or device memory)
internal            ``InternalError``      ``RuntimeError`` (a bug in Sextant)
==================  =====================  ===========================================

The argument checks of the Python layer raise ``BadArgumentError`` (wrong shape, dtype or
value, naming the argument) or ``TypeError`` for an object that is not array-like.
"""


class Error(Exception):
    """Base class of every error Sextant raises."""


class BadInputError(Error, ValueError):
    """Malformed input data: NaN or infinite values, a malformed file."""


class BadArgumentError(Error, ValueError):
    """A parameter outside its valid range (the message names it and the valid range)."""


class IOFailure(Error, OSError):
    """A file that cannot be opened, read or written (the message names it and why)."""


class UnsupportedError(Error, RuntimeError):
    """A valid request this build or machine cannot serve, e.g. a GPU without CUDA."""


class ResourceError(Error, MemoryError):
    """Out of host or device memory (the message says how much failed)."""


class InternalError(Error, RuntimeError):
    """A broken invariant inside Sextant: please report it."""


BY_KIND = {
    "bad_input": BadInputError,
    "bad_argument": BadArgumentError,
    "io": IOFailure,
    "unsupported": UnsupportedError,
    "resource": ResourceError,
    "internal": InternalError,
}
