"""The numbers notebook 06's prose states that no cell prints."""

NOT_DATA = {
    "7685": "the number of the llama.cpp pull request that brought the per-token attributes (a name, not a count)",
}
