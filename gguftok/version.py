"""The package's version, in a module that imports nothing, so that any layer may read it.

>>> from gguftok.version import __version__
>>> __version__.count(".") >= 2
True
"""

__version__ = "0.1.0.dev0"
