"""Code generators that turn a loop plan into vectorized source."""
