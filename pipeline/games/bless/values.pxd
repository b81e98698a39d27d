# Cython declarations for values.py (see common.pxd).
cimport cython

from .common cimport GameFields


cdef class Standing:
    cdef public object cond, ctx, end, extra, ok, okv, start, step, targets, ts

    cpdef applies(self, g, c)


cdef class Values(GameFields):
    cpdef controller(self, c)
    cpdef _dirty(self)
    cpdef _moved(self, c, entered=*)
    cpdef _gain(self, item)
    cpdef _touch(self)
    cpdef _standing(self)
    cpdef _static_entries(self, c, p)
    cpdef _entries_of(self, key, abilities)
    cpdef _entries(self, kind, c)
    cpdef suppressed(self, c)
    cpdef stat(self, c, stat, original=*)
    cpdef _memo(self, c, stat, original)
    cpdef _compute(self, c, stat, original, fight)
    @cython.locals(e=Standing)
    cpdef _combine(self, c, base, kind, add)
    cpdef _rivalry(self, c, fight)
    @cython.locals(e=Standing)
    cpdef forma(self, c)
    @cython.locals(e=Standing)
    cpdef has(self, c, keyword)
    @cython.locals(e=Standing)
    cpdef flag(self, kind, c)
    @cython.locals(e=Standing)
    cpdef shielded(self, defender, attacker)
    @cython.locals(e=Standing)
    cpdef wins_level(self, c, other)
    @cython.locals(e=Standing)
    cpdef free(self, c, p, into)
