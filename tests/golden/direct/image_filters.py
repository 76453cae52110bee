"""Two filters written the usual way: a sepia tone applied pixel by pixel, and a circular first
difference of a signal.

What it does: ``sepia`` turns an 8-bit colour image (blue, green, red channels) into sepia: each
pixel's grey level from its three channels, then the red, green and blue of the tone, capped
at 255. ``circular_difference`` gives half the difference between each sample of a periodic
signal and the sample before it (the first sample's is the last one).

Where it shows up: image processing tutorials and course code, filters in pixel loops with
small helpers defined next to them; finite differences, edge detection and phase unwrapping
on periodic signals, where "the previous value" is kept in a variable.

Pattern: ``sepia`` is a map over pixels (two nested loops) whose body calls helpers defined
inside the function (closures), spreads each pixel's channels into a helper's parameters
(``grey_of(*picture[i][j])``) and writes the pixel as a list of three values.
``circular_difference`` reads ``prev`` before it sets it, last in the body, to the sample
the iteration read: a wrap-around variable (Allen and Kennedy 2001, section 5.5), ``i - 1``
on every iteration but the first. No iteration depends on another's work.

Expected verdict: both vectorizable (PF101), by the direct backend: the helpers inlined, the
pixel's channels read as ``picture[..., 0]``, ``[..., 1]``, ``[..., 2]``, the three values
stacked and cast to the image's dtype one by one (as the loop's assignment casts them);
``prev`` read as ``np.where(i == 0, prev, signal[i - 1])``. Equal to the loop bit for bit.
"""

import numpy as np


def sepia(picture, factor):
    """A sepia tone, in place.

    Args:
      picture: uint8 [rows, cols, 3], an image with blue, green and red channels.
      factor: int, how much warmer the tone is (added to green once and to red twice).

    Returns:
      ``picture``.
    """
    n_rows, n_cols = picture.shape[0], picture.shape[1]

    def grey_of(blue, green, red):
        return 0.2126 * red + 0.587 * green + 0.114 * blue

    def cap(value):
        return min(value, 255)

    # pforge: vectorized loop (was lines 47-50: map over picture, indexed output picture, 1 inner loop) with batched
    #   ops, where its run-time checks hold
    if (
        type(picture) is np.ndarray
        and n_rows <= picture.shape[0]
        and n_cols <= picture.shape[1]
        and not (isinstance(factor, np.ndarray) and np.may_share_memory(picture, factor))
        and np.ndim(factor) == 0
        and picture.ndim == 3
        and n_rows > 0
        and n_cols > 0
    ):
        if np.shape(picture[:n_rows, :n_cols])[2] != 3:
            raise TypeError("grey_of() takes 3 positional arguments for the items of one row")
        whole = (
            0.2126 * picture[:n_rows, :n_cols, 2]
            + 0.587 * picture[:n_rows, :n_cols, 1]
            + 0.114 * picture[:n_rows, :n_cols, 0]
        )
        grey = (
            whole.astype(int)
            if not np.any(np.abs(whole) >= 2.0**63)
            else np.vectorize(int, otypes=[object])(np.where(np.isfinite(whole), whole, 0))
        )
        grey_term = grey.astype(np.result_type(2 * factor, 0)) + 2 * factor
        grey_term_1 = grey.astype(np.result_type(factor, 0)) + factor
        constant = np.asarray(255, dtype=np.uint8)
        picture[:n_rows, :n_cols] = np.stack(
            np.broadcast_arrays(
                np.minimum(grey, 255),
                np.where(constant < grey_term_1, constant, grey_term_1),
                np.where(constant < grey_term, constant, grey_term),
            ),
            axis=2,
            dtype=picture.dtype,
            casting="unsafe",
        )
    else:
        for i in range(n_rows):
            for j in range(n_cols):
                grey = int(grey_of(*picture[i][j]))
                picture[i][j] = [cap(grey), cap(grey + factor), cap(grey + 2 * factor)]
    return picture


def circular_difference(signal):
    """Half the difference between each sample and the one before it, around a period.

    Args:
      signal: float64 [n], one period of a signal (any unit).

    Returns:
      float64 [n], ``(signal[i] - signal[i - 1]) / 2``, the first sample's from the last.
    """
    out = np.empty(len(signal))
    prev = signal[-1]
    # pforge: vectorized loop (was lines 65-67: map over signal, indexed output out, wrap-around prev) with batched
    #   ops, where its run-time checks hold
    if type(signal) is np.ndarray and signal.ndim == 1 and len(signal) > 0:
        i = np.arange(len(signal))
        prev_before = signal[i - 1]
        out[...] = (signal - prev_before) * 0.5
    else:
        for i in range(len(signal)):
            out[i] = (signal[i] - prev) * 0.5
            prev = signal[i]
    return out


def reference_sepia(picture, factor):
    """Hand-batched equivalent of :func:`sepia`."""
    grey = (0.2126 * picture[..., 2] + 0.587 * picture[..., 1] + 0.114 * picture[..., 0]).astype(int)
    tone = np.stack([grey, grey + factor, grey + 2 * factor], axis=-1)
    picture[...] = np.minimum(tone, 255)
    return picture


def reference_circular_difference(signal):
    """Hand-batched equivalent of :func:`circular_difference`."""
    return (signal - np.roll(signal, 1)) * 0.5


def example_inputs(seed=0, rows=480, cols=640, samples=10_000):
    """A random 8-bit image and a noisy sine period."""
    rng = np.random.default_rng(seed)
    picture = rng.integers(0, 256, size=(rows, cols, 3), dtype=np.uint8)
    t = np.linspace(0.0, 2.0 * np.pi, samples, endpoint=False)
    return {"sepia": (picture, 20),
            "circular_difference": (np.sin(t) + 0.01 * rng.normal(size=samples),)}
