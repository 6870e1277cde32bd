/* The compiled core's only compiler- and system-specific code: bit counts, exact 128-bit
   counts and clocks (bitops.pxd declares them to Cython).  GCC and Clang use their
   builtins, MSVC its intrinsics and the Win32 clocks, any other compiler plain C; with
   -DBONES_PORTABLE_FALLBACK every compiler takes the plain-C branches
   (tests/test_portability.py compares them with the others). */
#ifndef BONES_PORTABLE_H
#define BONES_PORTABLE_H

#include <stdint.h>

#if defined(_MSC_VER) && !defined(__clang__)
#define BONES_INLINE static __forceinline
#else
#define BONES_INLINE static inline
#endif

/* ---- bit counts (ctz of 0 is undefined, as the builtins') ------------------------- */

BONES_INLINE int bones_popcount32_c(uint32_t m) {
    m = m - ((m >> 1) & 0x55555555u);
    m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
    return (int)((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

BONES_INLINE int bones_popcount64_c(uint64_t m) {
    m = m - ((m >> 1) & 0x5555555555555555ULL);
    m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
    return (int)((((m + (m >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * 0x0101010101010101ULL) >> 56);
}

/* de Bruijn: the lowest bit alone, times the sequence, indexes its position */
static const uint8_t BONES_DEBRUIJN32[32] = {
    0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
    31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9};
static const uint8_t BONES_DEBRUIJN64[64] = {
    0, 1, 2, 53, 3, 7, 54, 27, 4, 38, 41, 8, 34, 55, 48, 28,
    62, 5, 39, 46, 44, 42, 22, 9, 24, 35, 59, 56, 49, 18, 29, 11,
    63, 52, 6, 26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
    51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12};

BONES_INLINE int bones_ctz32_c(uint32_t m) {
    return BONES_DEBRUIJN32[((m & (0u - m)) * 0x077CB531u) >> 27];
}

BONES_INLINE int bones_ctz64_c(uint64_t m) {
    return BONES_DEBRUIJN64[((m & (0ULL - m)) * 0x022FDD63CC95386DULL) >> 58];
}

#if defined(BONES_PORTABLE_FALLBACK)
#define BONES_BITS "c"
#define bones_popcount32 bones_popcount32_c
#define bones_popcount64 bones_popcount64_c
#define bones_ctz32 bones_ctz32_c
#define bones_ctz64 bones_ctz64_c
#elif defined(__GNUC__) || defined(__clang__)
#define BONES_BITS "builtin"
BONES_INLINE int bones_ctz32(uint32_t m) { return __builtin_ctz(m); }
BONES_INLINE int bones_ctz64(uint64_t m) { return __builtin_ctzll(m); }
#if (defined(__x86_64__) || defined(__i386__)) && !defined(__POPCNT__)
/* without -mpopcnt the builtin is a call into libgcc: the inlined plain C is faster */
#define bones_popcount32 bones_popcount32_c
#define bones_popcount64 bones_popcount64_c
#else
BONES_INLINE int bones_popcount32(uint32_t m) { return __builtin_popcount(m); }
BONES_INLINE int bones_popcount64(uint64_t m) { return __builtin_popcountll(m); }
#endif
#elif defined(_MSC_VER)
#define BONES_BITS "msvc"
#include <intrin.h>
BONES_INLINE int bones_ctz32(uint32_t m) {
    unsigned long i;
    _BitScanForward(&i, m);
    return (int)i;
}
#if defined(_M_X64) || defined(_M_ARM64)
BONES_INLINE int bones_ctz64(uint64_t m) {
    unsigned long i;
    _BitScanForward64(&i, m);
    return (int)i;
}
#else
BONES_INLINE int bones_ctz64(uint64_t m) {
    return (uint32_t)m ? bones_ctz32((uint32_t)m) : 32 + bones_ctz32((uint32_t)(m >> 32));
}
#endif
#if defined(_M_X64) && !defined(_M_ARM64EC)
/* the POPCNT instruction: every x86-64 processor since 2008 (x86-64-v2); elsewhere
   (ARM64, 32-bit x86) the plain C */
BONES_INLINE int bones_popcount32(uint32_t m) { return (int)__popcnt(m); }
BONES_INLINE int bones_popcount64(uint64_t m) { return (int)__popcnt64(m); }
#else
#define bones_popcount32 bones_popcount32_c
#define bones_popcount64 bones_popcount64_c
#endif
#else
#define BONES_BITS "c"
#define bones_popcount32 bones_popcount32_c
#define bones_popcount64 bones_popcount64_c
#define bones_ctz32 bones_ctz32_c
#define bones_ctz64 bones_ctz64_c
#endif

/* ---- exact counts below 2**128 ------------------------------------------------------
   Two 64-bit words on every compiler (MSVC has no 128-bit integer).  A sum
   that does not fit saturates at 2**128 - 1, which every later sum keeps: a count is
   either exact or reads as the overflow mark, never wrapped. */

typedef struct { uint64_t lo; uint64_t hi; } bones_u128;  /* value = hi * 2**64 + lo */

BONES_INLINE bones_u128 bones_u128_of(uint64_t x) {
    bones_u128 r;
    r.lo = x;
    r.hi = 0;
    return r;
}

BONES_INLINE int bones_u128_is_max(bones_u128 a) { return (a.lo & a.hi) == UINT64_MAX; }

BONES_INLINE int bones_u128_is_zero(bones_u128 a) { return (a.lo | a.hi) == 0; }

BONES_INLINE int bones_u128_lt(bones_u128 a, bones_u128 b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

BONES_INLINE bones_u128 bones_u128_add(bones_u128 a, bones_u128 b) {
    bones_u128 r;
    uint64_t hi = a.hi + b.hi;
    int over = hi < a.hi;
    r.lo = a.lo + b.lo;
    r.hi = hi + (r.lo < a.lo);
    over |= r.hi < hi;
    if (over || bones_u128_is_max(a) || bones_u128_is_max(b)) r.lo = r.hi = UINT64_MAX;
    return r;
}

/* a - b, for b <= a */
BONES_INLINE bones_u128 bones_u128_sub(bones_u128 a, bones_u128 b) {
    bones_u128 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

/* ---- clocks ------------------------------------------------------------------------ */

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
/* time.monotonic()'s clock (the parent's watchdog compares its readings with this one):
   QueryPerformanceCounter from Python 3.13 on, GetTickCount64 before */
BONES_INLINE double bones_monotonic(void) {
#if defined(PY_VERSION_HEX) && PY_VERSION_HEX < 0x030D0000
    return (double)GetTickCount64() * 1e-3;
#else
    LARGE_INTEGER count, freq;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&freq);
    return (double)count.QuadPart / (double)freq.QuadPart;
#endif
}
BONES_INLINE double bones_thread_ms(void) {
    FILETIME created, exited, kernel, user;
    ULARGE_INTEGER k, u;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0.0;
    k.LowPart = kernel.dwLowDateTime;
    k.HighPart = kernel.dwHighDateTime;
    u.LowPart = user.dwLowDateTime;
    u.HighPart = user.dwHighDateTime;
    return (double)(k.QuadPart + u.QuadPart) * 1e-4;  /* 100 ns units */
}
#else
#include <time.h>
#if defined(__APPLE__)
#include <mach/mach_time.h>
/* time.monotonic()'s clock on macOS (CLOCK_MONOTONIC there also counts sleep) */
BONES_INLINE double bones_monotonic(void) {
    static mach_timebase_info_data_t base;
    if (base.denom == 0) mach_timebase_info(&base);
    return (double)mach_absolute_time() * base.numer / base.denom * 1e-9;
}
#else
/* time.monotonic()'s clock (the parent's watchdog compares its readings with this one) */
BONES_INLINE double bones_monotonic(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
#endif
BONES_INLINE double bones_thread_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
#endif

#endif
