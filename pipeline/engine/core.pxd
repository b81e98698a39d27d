# Cython declarations for core.py (compiled by setup.py; the .py stays plain Python): the
# shuffle every game's Chance runs, with C integers for its indices, and the random
# choice, callable from C by the agents (agents.pxd).
cimport cython


@cython.locals(i=Py_ssize_t, n=Py_ssize_t, k=int, j=Py_ssize_t)
cpdef shuffle(rng, list pile)
cpdef choose(rng, options)
