"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/Matplotlib_Gridding_irregularly_spaced_data.ipynb (function `griddata`, notebook cell 5)
Project: scipy/scipy-cookbook
Description: bins scattered (x, y, z) samples onto a regular grid, storing for each cell the median z of the samples that fall in it (NaN when empty), the sample count, and their indices.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each grid cell scans the same read-only samples and writes only its own entries of grid, bins and wherebin",
}


def original(x, y, z, binsize=0.01, retbin=True, retloc=True):
    xmin, xmax = x.min(), x.max()
    ymin, ymax = y.min(), y.max()

    xi      = np.arange(xmin, xmax+binsize, binsize)
    yi      = np.arange(ymin, ymax+binsize, binsize)
    xi, yi = np.meshgrid(xi,yi)

    # make the grid.
    grid           = np.zeros(xi.shape, dtype=x.dtype)
    nrow, ncol = grid.shape
    if retbin: bins = np.copy(grid)

    # create list in same shape as grid to store indices
    if retloc:
        wherebin = np.copy(grid)
        wherebin = wherebin.tolist()

    # fill in the grid.
    for row in range(nrow):
        for col in range(ncol):
            xc = xi[row, col]    # x coordinate.
            yc = yi[row, col]    # y coordinate.

            # find the position that xc and yc correspond to.
            posx = np.abs(x - xc)
            posy = np.abs(y - yc)
            ibin = np.logical_and(posx < binsize/2., posy < binsize/2.)
            ind  = np.where(ibin == True)[0]

            # fill the bin.
            bin = z[ibin]
            if retloc: wherebin[row][col] = ind
            if retbin: bins[row, col] = bin.size
            if bin.size != 0:
                binval         = np.median(bin)
                grid[row, col] = binval
            else:
                grid[row, col] = np.nan   # fill empty bins with nans.

    # return the grid
    if retbin:
        if retloc:
            return grid, bins, wherebin
        else:
            return grid, bins
    else:
        if retloc:
            return grid, wherebin
        else:
            return grid


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 30
    x = rng.random(n)
    y = rng.random(n)
    z = np.sin(3*x) + np.cos(2*y)
    retbin = seed != 1
    retloc = seed != 2
    return (x, y, z, 0.2, retbin, retloc)
