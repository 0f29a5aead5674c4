import sys, time, pyclmatch, scipy.io, scipy.sparse as sp
print(pyclmatch.__file__)
from pyclmatch import generators
(n, A), = list(generators.suite(['delaunay-17'], size='medium'))
A = sp.csr_matrix(((abs(A)+abs(A).T)>0).astype(float)); A.setdiag(0); A.eliminate_zeros()
R = scipy.io.mmread("/work/shared/data/graphs/rajat01.mtx"); R = sp.csr_matrix(((abs(R)+abs(R.T))>0).astype(float)); R.setdiag(0); R.eliminate_zeros()
G = R if sys.argv[1] == "rajat01" else A
t=time.perf_counter(); pyclmatch.leiden(G, device='cpu'); print(sys.argv[1], 'cold first leiden', round(time.perf_counter()-t,2))
t=time.perf_counter(); pyclmatch.leiden(G, device='cpu'); print('warm', round(time.perf_counter()-t,3))
