# Cython declarations for state.py (see common.pxd).
from .turns cimport Turns
from .common cimport is_subset, subsets


cdef class BlessGame(Turns):
    cpdef current_player(self)
    cpdef legal_actions(self)
    cpdef apply(self, action)
    cpdef is_terminal(self)
    cpdef _run(self)
    cpdef _resolve(self, d, choice)
