"""gguftok: the tokenizer inside a GGUF file, with llama.cpp's exact token ids.

A model file is named by a path, an ``https://`` URL, ``hf://owner/repo/file.gguf`` or ``ollama:model``;
only its metadata is read, wherever it is (:func:`open_source` takes the options of a remote read, a
:class:`SourceError` says why the bytes could not be had):

>>> from gguftok import SourceError, open_source, read_metadata
>>> read_metadata(open_source("data/synthetic/tiny-9.gguf")).origin.kind
'file'
>>> try:
...     read_metadata("hf://owner/model.gguf")
... except SourceError as e:  # an OSError too
...     print(e.reason)
bad-reference
"""

from .errors import ChatTemplateError, DataError, EncodeError, GGUFError, GguftokError, SourceError, VocabError
from .metadata import GGUFMetadata, ValueType, read_metadata
from .sources import ReadReport, Source, open_source
from .tokenizer import Tokenizer
from .version import __version__ as __version__

__all__ = ["ChatTemplateError", "DataError", "EncodeError", "GGUFError", "GGUFMetadata", "GguftokError",
           "ReadReport", "Source", "SourceError", "Tokenizer", "ValueType", "VocabError", "open_source",
           "read_metadata"]
