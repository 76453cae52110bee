"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/voronoi.py (function `voronoi`, lines 103-108, with `circumcircle`, lines 12-35)
Project: rougier/from-python-to-numpy
Description: computes the circumscribed circle of every Delaunay triangle and appends its centre to the Voronoi cell of each of the triangle's three vertices.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each triangle's circle depends only on its own vertices; it writes its own row of C and appends to the cells of its vertices (scatter-append)",
}


def circumcircle(P1,P2,P3):
    delta_a = P2 - P1
    delta_b = P3 - P2
    epsilon = 0.000000001
    if np.abs(delta_a[0]) <= epsilon and np.abs(delta_b[1]) <= epsilon:
        center_x = 0.5*(P2[0] + P3[0])
        center_y = 0.5*(P1[1] + P2[1])
    else:
        aSlope = delta_a[1]/delta_a[0]
        bSlope = delta_b[1]/delta_b[0]
        if np.abs(aSlope-bSlope) <= epsilon:
            return None
        center_x= (aSlope*bSlope*(P1[1] - P3[1]) + bSlope*(P1[0] + P2 [0]) \
                        - aSlope*(P2[0]+P3[0]) )/(2* (bSlope-aSlope) )
        center_y = -1*(center_x - (P1[0]+P2[0])/2)/aSlope +  (P1[1]+P2[1])/2;
    radius = np.sqrt( (center_x - P1[0])**2+(center_y - P1[1])**2)
    return center_x, center_y, radius


def original(P, T, C, cells):
    n = T.shape[0]
    for i in range(n):
        C[i] = circumcircle(P[T[i,0]],P[T[i,1]],P[T[i,2]])
        x,y,r = C[i]
        cells[T[i,0]].append( (x,y) )
        cells[T[i,1]].append( (x,y) )
        cells[T[i,2]].append( (x,y) )
    return C, cells


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    m = 4
    gx, gy = np.meshgrid(np.arange(m, dtype=float), np.arange(m, dtype=float))
    X = (gx + 0.25*rng.uniform(-1, 1, (m, m))).ravel()
    Y = (gy + 0.25*rng.uniform(-1, 1, (m, m))).ravel()
    P = np.zeros((X.size, 2))
    P[:, 0] = X
    P[:, 1] = Y
    tris = []
    for r in range(m-1):
        for c in range(m-1):
            a, b, d, e = r*m+c, r*m+c+1, (r+1)*m+c, (r+1)*m+c+1
            tris.append((a, b, e))
            tris.append((a, e, d))
    T = np.array(tris, dtype=np.int32)
    if seed == 2:
        # a triangle whose first edge is vertical and second edge horizontal
        P[0] = (0.0, 0.0)
        P[1] = (0.0, 0.5)
        P[m+1] = (1.0, 0.5)
    C = np.zeros((T.shape[0], 3))
    cells = [list() for _ in range(X.size)]
    return (P, T, C, cells)
