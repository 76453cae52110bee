"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/LinearClassification.ipynb (function `main`, notebook cell 3, the first loop, with helper `gaussian`)
Project: scipy/scipy-cookbook
Description: assigns each sample to one of three classes by comparing softmax-like scores of its class-conditional Gaussian densities, and flags the samples whose assignment differs from the target.
Note: the notebook is Python 2 (`xrange`); its `gaussian` helper passes a 1x1 array to math.exp, which current NumPy rejects, so `.item()` is added there. The loop is unchanged.
"""
import math
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each sample's densities, scores and flags depend only on that sample and write only its own rows of t_assigned and count",
}


def gaussian(x, mean, cov):
  xm=np.reshape((x-mean), (-1, 1))
  px=1/(math.pow(2.0*math.pi, 2))*1/math.sqrt(np.linalg.det(cov))*math.exp(-(np.dot(np.dot(xm.T, np.linalg.inv(cov)), xm)).item()/2)
  return px


def original(data, t, mean1, mean2, mean3, cov1, cov2, cov3):
 count=np.zeros(shape=(len(data),1))
 t_assigned=np.zeros(shape=(len(data), 3))

 for i in range(len(data)):
     px1=(1/3.0)*gaussian(data[i], mean1, cov1)
     px2=(1/3.0)*gaussian(data[i], mean2, cov2)
     px3=(1/3.0)*gaussian(data[i], mean3, cov3)
     m=np.max([px1, px2, px3])
     pc1=((math.exp(px1)*math.exp(-m))*math.exp(m))/((math.exp(px2)*math.exp(-m)+math.exp(px3)*math.exp(-m))*math.exp(m))
     pc2=((math.exp(px2)*math.exp(-m))*math.exp(m))/((math.exp(px1)*math.exp(-m)+math.exp(px3)*math.exp(-m))*math.exp(m))
     pc3=((math.exp(px3)*math.exp(-m))*math.exp(m))/((math.exp(px1)*math.exp(-m)+math.exp(px2)*math.exp(-m))*math.exp(m))
     if pc1>pc2 and pc1>pc3: t_assigned[i][0]=1
     elif pc3>pc1 and pc3>pc2: t_assigned[i][1]=1
     elif pc2>pc1 and pc2>pc3: t_assigned[i][2]=1
     for j in range(3):
      if t[i][j]-t_assigned[i][j]!=0: count[i]=1
 return t_assigned, count


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[5.0, 3.4, 1.5, 0.2], [6.6, 3.0, 5.5, 2.0], [5.9, 2.8, 4.3, 1.3]])
    classes = [c + 0.6*rng.standard_normal((8, 4)) for c in centres]
    data = np.vstack(classes)
    t = np.zeros((len(data), 3))
    t[:8, 0] = 1
    t[8:16, 2] = 1
    t[16:, 1] = 1
    t[0] = (0, 1, 0)                # a mislabelled target, so some samples disagree
    means = [c.mean(axis=0) for c in classes]
    covs = [np.cov(c, rowvar=0) for c in classes]
    return (data, t, means[0], means[1], means[2], covs[0], covs[1], covs[2])
