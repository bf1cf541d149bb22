"""Model runtimes (llama.cpp, cloud), the models.toml catalogue, downloads and hardware fit."""
