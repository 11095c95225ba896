"""The tokenization models, one algorithm per module: BPE, SentencePiece (SPM), WordPiece (WPM), Unigram
(UGM), RWKV, PLaMo-2, and llama.cpp's hash ``test`` model."""
