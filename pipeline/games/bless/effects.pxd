# Cython declarations for effects.py (see common.pxd).
from .values cimport Values
from .compiler cimport CSelector, CStep


cdef class Effects(Values):
    cpdef _payable(self, f)
    cpdef _run_ability(self, f, choice=*)
    cpdef _step(self, f, st, choice)
    cpdef _select(self, f, CStep st, CSelector sel, choice)
    cpdef _candidates(self, CStep st, CSelector sel, ctx)
    cpdef _lasting(self, f, st, ctx)
    # Field's primitives, declared here so that this layer calls them in C
    cpdef _move(self, long c, long dest)
    cpdef _break(self, c, dest=*)
    cpdef _corrupt(self, c)
    cpdef _purify(self, c)
    cpdef _discard(self, c)
    cpdef _draw(self, p, n, log=*)
    cpdef _shuffle(self, pile)
    cpdef _score(self, p, points, card)
