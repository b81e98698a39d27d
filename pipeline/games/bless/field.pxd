# Cython declarations for field.py (see common.pxd).
cimport cython

from .effects cimport Effects


cdef class Field(Effects):
    cpdef _hosts(self, p)
    cpdef _legami_on(self, m)
    @cython.locals(source=long, pile=list)
    cpdef _move(self, long c, long dest)
    cpdef _break(self, c, dest=*)
    cpdef _corrupt(self, c)
    cpdef _purify(self, c)
    cpdef _discard(self, c)
    cpdef _draw(self, p, n, log=*)
    cpdef _shuffle(self, pile)
    cpdef _score(self, p, points, card)
    cpdef _bless(self, c, p, karma, reason)
    cpdef _final(self, p, how)  # Turns'
