"""Argument conversions shared by the package's modules (private)."""

from __future__ import annotations

from typing import Iterable, Union


def devices_text(devices: Union[None, str, Iterable[str]], default: str) -> str:
    """The library's ``--devices`` text: a string as given, a sequence joined by commas."""
    if devices is None:
        return default
    if isinstance(devices, str):
        return devices
    return ",".join(devices)
