# Cython declarations for agents.py (see core.pxd): the random agent calls core.choose in C.
from .core cimport choose
