/* glibc-shim: stand-in for glibc's internal libc-symbols.h.

   Part of EXPAND's mathlib shim (not glibc code).  It lets single glibc
   libm sources (sysdeps/ieee754/flt-32) compile outside the glibc build
   and parse with pycparser.  Symbol aliasing and versioning are dropped:
   every alias macro expands to nothing, so a stray trailing ';' is just an
   empty file-scope declaration (accepted by gcc without -pedantic and by
   pycparser).  No public names (floorf, logf, ...) are defined, so an object
   built from a corpus file never shadows the system libm.  */

#ifndef _GLIBC_SHIM_LIBC_SYMBOLS_H
#define _GLIBC_SHIM_LIBC_SYMBOLS_H 1

#include <sys/cdefs.h>

#ifndef attribute_hidden
# define attribute_hidden __attribute__ ((visibility ("hidden")))
#endif

#define hidden_proto(name, ...)
#define hidden_def(name)
#define hidden_weak(name)
#define hidden_ver(local, name)
#define hidden_data_def(name)
#define libm_hidden_proto(name, ...)
#define libm_hidden_def(name)
#define libm_hidden_weak(name)
#define libc_hidden_proto(name, ...)
#define libc_hidden_def(name)

#define strong_alias(name, aliasname)
#define weak_alias(name, aliasname)
#define versioned_symbol(lib, local, symbol, version)
#define compat_symbol(lib, local, symbol, version)

#ifndef __glibc_unlikely
# define __glibc_unlikely(cond) __builtin_expect ((cond), 0)
#endif
#ifndef __glibc_likely
# define __glibc_likely(cond) __builtin_expect ((cond), 1)
#endif

#endif /* libc-symbols.h */
