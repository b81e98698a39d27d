# Cython declarations for compiler.py (see common.pxd): the compiled card data as C classes.

cimport cython


cdef class Reader:
    cdef public object corrupt, fight, info, piles, stasi, zone

    cpdef forma(self, long c)
    cpdef stat(self, long c, long stat, bint original=*)


cdef class Ctx:
    cdef public object chosen
    cdef public object cost
    cdef public object host
    cdef public object target
    cdef public object this
    cdef public object user


cdef class Check:
    cpdef bint test(self, Reader g, c, Ctx ctx)


cdef class CFilter:
    cdef public object anyone
    cdef public object checks
    cdef public object controller
    cdef public object exclude
    cdef public object fighting
    cdef public object kinds
    cdef public object opposite_of
    cdef public object pile
    cdef public object top

    cpdef players(self, g, ctx)
    cpdef _excluded(self, ctx)
    cpdef _pool(self, g, ctx)
    @cython.locals(check=Check)
    cpdef cards(self, Reader g, ctx)
    @cython.locals(check=Check)
    cpdef matches(self, Reader g, c, ctx)


cdef class CSelector(CFilter):
    cdef public object by
    cdef public object by_original
    cdef public object chooser
    cdef public Value count
    cdef public object key
    cdef public object pick


cdef class Value:
    cpdef value(self, Reader g, Ctx ctx, it)


cdef class Const(Value):
    cdef public object n


cdef class CountOf(Value):
    cdef public CFilter flt
    cdef public object times


cdef class StatOfRef(Value):
    cdef public object of, original, stat


cdef class StatOfSelected(Value):
    cdef public object original, stat
    cdef public CSelector selector


cdef class ExtremeOf(Value):
    cdef public CFilter among
    cdef public object highest, original, stat


cdef class Diff(Value):
    cdef public Value first, second


cdef class Compare:
    cdef public tuple tests

    @cython.locals(expr=Value)
    cpdef bint test(self, Reader g, Ctx ctx, it, value)


cdef class FormaIs(Check):
    cdef public long bits
    cdef public bint negate


cdef class PrayerIn(Check):
    cdef public frozenset kinds


cdef class CorruptIs(Check):
    cdef public bint want


cdef class StasiIs(Check):
    cdef public bint want


cdef class StatIs(Check):
    cdef public Compare compare
    cdef public object original, stat


cdef class InClash(Check):
    cdef public object role
    cdef public CFilter vs


cdef class CStep:
    cdef public Value add
    cdef public object always
    cdef public Value amount
    cdef public object by
    cdef public object duration
    cdef public object fight
    cdef public object forma
    cdef public object into
    cdef public object keyword
    cdef public object kind
    cdef public object nested
    cdef public object op
    cdef public object original
    cdef public object raw
    cdef public CSelector selector
    cdef public Value set
    cdef public object shuffle
    cdef public object stasi
    cdef public object target
    cdef public object text
    cdef public object to
    cdef public CFilter vs
    cdef public CFilter when


cdef class CAbility:
    cdef public object card
    cdef public object cond
    cdef public object cost
    cdef public object effects
    cdef public object optional
    cdef public object rebinds
    cdef public object side
    cdef public object suppresses
    cdef public object trigger
    cdef public object watch


cdef class CardInfo:
    cdef public object code
    cdef public object data
    cdef public object forma
    cdef public object index
    cdef public object karma
    cdef public object keywords
    cdef public dict mal
    cdef public object name
    cdef public object number
    cdef public object occhio
    cdef public object prayer
    cdef public dict pre
    cdef public object profile
