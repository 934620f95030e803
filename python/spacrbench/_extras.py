"""How to install an optional extra, in the words every message uses. The
package is on no index yet, so they also say how to install it from a
clone of the repository. A leaf: it imports nothing of the package."""

#: What the plots need (matplotlib), as one command line of at most 79
#: columns: a message puts it on a line of its own, indented by two.
PLOT_INSTALL = "pip install 'spacrbench[plot]' (from a clone: pip install '.[plot]')"

__all__ = ["PLOT_INSTALL"]
