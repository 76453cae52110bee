"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/CommTheory.ipynb (BPSK script, notebook cell 1)
Project: scipy/scipy-cookbook
Description: for each SNR value, simulates BPSK symbols through additive Gaussian noise, counts decoding errors and records the simulated and theoretical bit-error rates, printing each line.
Note: the notebook imports `erfc` from scipy.special (scipy is not installed here; math.erfc is the same function on a scalar), is Python 2 (`print` statement), and passes a float `VEC_SIZE` as a size, which current NumPy rejects; those three points are ported, nothing else.
"""
from math import erfc
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "the body draws random symbols and noise, prints a line per SNR, and advances the manual index `loop`",
}


def original(Eb_No_dB, SNR):
    Pe          = np.empty(np.shape(SNR))
    BER         = np.empty(np.shape(SNR))

    loop = 0
    for snr in SNR:      # SNR loop
     Pe[loop] = 0.5*erfc(np.sqrt(snr))
     VEC_SIZE = int(np.ceil(100/Pe[loop]))  # vector length is a function of Pe

     # signal vector, new vector for each SNR value
     s = 2*np.random.randint(0,high=2,size=VEC_SIZE)-1

     # linear power of the noise; average signal power = 1
     No = 1.0/snr

     # noise
     n = np.sqrt(No/2)*np.random.randn(VEC_SIZE)

     # signal + noise
     x = s + n

     # decode received signal + noise
     y = np.sign(x)

     # find erroneous symbols
     err = np.where(y != s)
     error_sum = float(len(err[0]))
     BER[loop] = error_sum/VEC_SIZE
     print('Eb_No_dB=%4.2f, BER=%10.4e, Pe=%10.4e' % \
            (Eb_No_dB[loop], BER[loop], Pe[loop]))
     loop += 1
    return Pe, BER


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    lo = int(rng.integers(0, 2))
    Eb_No_dB = np.arange(lo, lo + 4)
    SNR = 10**(Eb_No_dB/10.0)
    return (Eb_No_dB, SNR)
