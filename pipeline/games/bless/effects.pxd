# Cython declarations for effects.py (see common.pxd).
from .values cimport Values


cdef class Effects(Values):
    cpdef _payable(self, f)
    cpdef _run_ability(self, f, choice=*)
    cpdef _step(self, f, st, choice)
    cpdef _select(self, f, st, sel, choice)
    cpdef _candidates(self, st, sel, ctx)
    cpdef _lasting(self, f, st, ctx)
