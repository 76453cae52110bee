"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/KalmanFiltering.ipynb (script, notebook cell 1)
Project: scipy/scipy-cookbook
Description: runs a scalar Kalman filter over noisy measurements of a constant, storing the prior and posterior estimates, their variances and the gain at every step.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "step k reads the posterior estimate and variance written at step k-1 (recurrence)",
}


def original(z, n_iter, Q, R):
    sz = (n_iter,) # size of array

    # allocate space for arrays
    xhat=np.zeros(sz)      # a posteri estimate of x
    P=np.zeros(sz)         # a posteri error estimate
    xhatminus=np.zeros(sz) # a priori estimate of x
    Pminus=np.zeros(sz)    # a priori error estimate
    K=np.zeros(sz)         # gain or blending factor

    # intial guesses
    xhat[0] = 0.0
    P[0] = 1.0

    for k in range(1,n_iter):
        # time update
        xhatminus[k] = xhat[k-1]
        Pminus[k] = P[k-1]+Q

        # measurement update
        K[k] = Pminus[k]/( Pminus[k]+R )
        xhat[k] = xhatminus[k]+K[k]*(z[k]-xhatminus[k])
        P[k] = (1-K[k])*Pminus[k]
    return xhat, P, xhatminus, Pminus, K


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n_iter = 30
    z = rng.normal(-0.37727, 0.1, size=(n_iter,))
    return (z, n_iter, 1e-5, 0.1**2)
