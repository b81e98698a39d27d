# Cython declarations for turns.py (see common.pxd).
cimport cython

from .field cimport Field
from .compiler cimport CardInfo
from .values cimport Standing
from .common cimport clash_eye


cdef class Turns(Field):
    cpdef _final(self, p, how)
    cpdef _run(self)  # BlessGame's
    cpdef _finish(self)
    @cython.locals(out=list, table=list, c=long, e=long, p=long)
    cpdef _main_options(self)
    @cython.locals(fx=dict, row=tuple, attacks=tuple, a=long, d=long)
    cpdef _attacks(self, long p, list table, list out)
    @cython.locals(info=CardInfo, fx=dict)
    cpdef _profile(self, long c)
    cpdef _main(self, action)
    cpdef _attacked(self, d)
    @cython.locals(e=Standing)
    cpdef _wins_on(self, c)
    @cython.locals(fx=dict)
    cpdef _outcome(self, a, d, hits)
    cpdef _settle(self, a, d, result)


cpdef list actions_on(n)
cpdef bint _reaches(dict fx, kind, c)
cpdef bint _plain(dict fx, a, d)
