"""How a count reads in a sentence: "1 worker", "4 workers". A leaf: it
imports nothing of the package."""


def counted(n: int, noun: str) -> str:
    """n and noun, the noun with an "s" unless n is exactly one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


__all__ = ["counted"]
