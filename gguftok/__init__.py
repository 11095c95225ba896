"""gguftok: the tokenizer inside a GGUF file, with llama.cpp's exact token ids.

>>> from gguftok import read_metadata
>>> read_metadata  # doctest: +ELLIPSIS
<function read_metadata at ...>
"""

from .errors import ChatTemplateError, DataError, EncodeError, GGUFError, GguftokError, VocabError
from .metadata import GGUFMetadata, ValueType, read_metadata
from .tokenizer import Tokenizer

__all__ = ["ChatTemplateError", "DataError", "EncodeError", "GGUFError", "GGUFMetadata", "GguftokError", "Tokenizer",
           "ValueType", "VocabError", "read_metadata"]
__version__ = "0.1.0.dev0"
