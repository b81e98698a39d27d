# Cython declarations for values.py (see common.pxd).
cimport cython

from .common cimport GameFields
from .compiler cimport CardInfo, CStep, Ctx


cdef class Standing:
    cdef public object cond, end, extra, ok, okv, start, targets, ts
    cdef public CStep step
    cdef public Ctx ctx

    cpdef applies(self, g, c)


cdef class Values(GameFields):
    cpdef controller(self, long c)
    cpdef _dirty(self)
    @cython.locals(info=CardInfo)
    cpdef _moved(self, c, entered=*)
    cpdef _gain(self, item)
    cpdef _touch(self)
    cpdef _standing(self)
    cpdef _static_entries(self, c, p)
    cpdef _entries_of(self, key, abilities)
    @cython.locals(ci=CardInfo, e=Standing, fx=dict, c=long, p=long, h=long)
    cpdef _collect(self)
    @cython.locals(fx=dict, named=dict)
    cpdef _entries(self, kind, c)
    cpdef suppressed(self, long c)
    @cython.locals(info=CardInfo, fx=dict)
    cpdef stat(self, long c, long stat, bint original=*)
    cpdef _memo(self, long c, long stat, bint original)
    @cython.locals(info=CardInfo, fx=dict)
    cpdef _compute(self, long c, long stat, bint original, fight)
    @cython.locals(e=Standing, st=CStep)
    cpdef _combine(self, c, base, kind, add)
    cpdef _rivalry(self, c, fight)
    @cython.locals(e=Standing)
    cpdef forma(self, long c)
    @cython.locals(e=Standing, fx=dict)
    cpdef has(self, long c, keyword)
    @cython.locals(e=Standing)
    cpdef flag(self, kind, long c)
    @cython.locals(e=Standing)
    cpdef shielded(self, long defender, long attacker)
    @cython.locals(e=Standing)
    cpdef wins_level(self, long c, long other)
    @cython.locals(e=Standing, ci=CardInfo)
    cpdef free(self, c, p, into)


@cython.locals(by_card=dict, touched=set, broad=list, kinds=set)
cpdef _file(dict fx, Standing e, set shared=*)
