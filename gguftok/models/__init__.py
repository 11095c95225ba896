"""The tokenization models: one algorithm per module (BPE today; SPM, WPM, UGM, RWKV, PLaMo-2 to come)."""
