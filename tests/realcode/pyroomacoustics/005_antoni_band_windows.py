"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `antoni_magnitude_octave_filter_response`, lines 236-288)
Project: LCAV/pyroomacoustics
Description: builds the frequency-domain windows of an Antoni fractional-octave filterbank: for each
band boundary it computes a smoothed (iterated sine) transition, fades the previous band out and
the current band in, and zeroes each band outside its range.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "iteration band writes rows band-1 and band, so row band-1 is overwritten after the previous iteration wrote it (order matters); the inner slope loop is a recurrence on phi",
}


def original(n_fft, centres, edges, fs, overlap, sharpness):
    n_bins = n_fft // 2 + 1

    # Discretize the bands boundaries.
    lo_bin = np.round(edges[:, 0] / fs * n_fft).astype(int)
    mid_bin = np.round(centres / fs * n_fft).astype(int)
    hi_bin = np.round(edges[:, 1] / fs * n_fft).astype(int)

    win = np.ones((mid_bin.shape[0], n_bins))

    half = np.round(overlap * (hi_bin - mid_bin)).astype(int)

    # Corrects the start and end of the first and last bands, respectively.
    lo_bin[0] = 0
    hi_bin[-1] = n_bins

    starts, stops = [0], []
    for b in range(1, mid_bin.shape[0]):

        if half[b] > 0:
            p = np.arange(-half[b], half[b] + 1)

            # Compute phi according to eq. (18) and (19).
            phi = p / half[b]
            for _ in range(sharpness):
                phi = np.sin(np.pi / 2 * phi)
            phi = 0.5 * (phi + 1)

            # Build the decreasing part of the previous band.
            win[b - 1, lo_bin[b] - half[b] : lo_bin[b] + half[b] + 1] = np.cos(
                np.pi / 2 * phi
            )
            # apply fade in in to next channel
            win[b, lo_bin[b] - half[b] : lo_bin[b] + half[b] + 1] = np.sin(
                np.pi / 2 * phi
            )

        # set current and next channel to zero outside their range
        win[b - 1, lo_bin[b] + half[b] :] = 0.0
        win[b, : lo_bin[b] - half[b]] = 0.0

        stops.append(lo_bin[b] + half[b])
        starts.append(lo_bin[b] - half[b])
    stops.append(n_bins)

    return win, n_bins, np.array(starts), mid_bin, np.array(stops)


def make_inputs(seed=0):
    fs = 4000.0
    centres = 125.0 * 2.0 ** np.arange(5)
    edges = np.stack([centres / 2.0**0.5, centres * 2.0**0.5], axis=1)
    overlap = [0.5, 0.25, 0.0][seed % 3]
    sharpness = [1, 3, 0][seed % 3]
    return (64, centres, edges, fs, overlap, sharpness)
