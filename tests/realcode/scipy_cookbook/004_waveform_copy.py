"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/Data_Acquisition_with_NIDAQmx.ipynb (method `WaveformThread.__init__`, notebook cell 3)
Project: scipy/scipy-cookbook
Description: copies a waveform element by element into a preallocated float64 buffer before handing it to the DAQ driver.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each iteration copies one element into its own slot of a preallocated array",
}


def original(waveform):
    period = len( waveform )
    buf = np.zeros( ( period, ), dtype=np.float64 )
    # convert waveform to a numpy array
    for i in range( period ):
        buf[ i ] = waveform[ i ]
    return buf


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(0, rng.uniform(0.05, 0.15), 1.0/250.0)
    return (np.sin(t),)
