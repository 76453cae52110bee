"""Source: https://github.com/python-acoustics/python-acoustics/blob/4284c1f81cf5b58682bad32aa897e32a4ee4edcb/acoustics/turbulence.py (function `_generate`, lines 381-407)
Project: python-acoustics/python-acoustics
Description: builds a 2-D random refractive-index field as a sum of cosine modes, each mode with
its own wavenumber, direction, amplitude and phase, evaluated on an (r, z) grid.

From a 2015 version of the project (the turbulence module was later removed). The project's `_mu`
helper evaluates `G * cos(r_mesh * k_nr + z_mesh * k_nz + alpha_n)` with numexpr, which is not
installed here; it is inlined as the equivalent NumPy expression the source keeps in a comment.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each mode's contribution is computed independently and accumulated into the field with += (a sum reduction)",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def _mu(G, r_mesh, k_nr, z_mesh, k_nz, alpha_n):
    return G * np.cos(r_mesh * k_nr + z_mesh * k_nz + alpha_n)


def original(r, z, dk, amplitudes, mode_ids, angles, phases):

    field = np.zeros((len(r), len(z)), dtype='float64')

    r_grid, z_grid = np.meshgrid(r, z)
    r_grid = r_grid.T
    z_grid = z_grid.T

    for n, amp, ang, ph in zip(mode_ids, amplitudes, angles, phases):

        k = n * dk

        kr = k * np.cos(ang)    # Wavenumber component
        kz = k * np.sin(ang)    # Wavenumber component

        contrib = _mu(amp, r_grid, kr, z_grid, kz, ph)
        field += contrib

    return field


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n_modes = 12
    r = np.linspace(0.0, 10.0, 9)
    z = np.linspace(0.0, 5.0, 7)
    mode_ids = np.arange(1, n_modes + 1)
    amplitudes = rng.uniform(0.1, 1.0, n_modes)
    angles = rng.uniform(0.0, 2.0 * np.pi, n_modes)
    phases = rng.uniform(0.0, 2.0 * np.pi, n_modes)
    return (r, z, 0.3, amplitudes, mode_ids, angles, phases)
