/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: os/clock.h. The performance counter is the monotonic clock
 * (system-wide, so sent_ns of one process means the same in another);
 * the wall clock is GetSystemTimePreciseAsFileTime(). Sleeps are Sleep():
 * as fine as the system's timer resolution (1 to 15.6 ms), which is why
 * a poll's pauses are longer here than on Linux (docs/windows.md).
 */
#include "config.h"

#include "os/clock.h"
#include "os/win/win-internal.h"

/* Windows 10 1803's flag; mingw-w64 10's headers lack it. */
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* 100-ns ticks from 1601-01-01 (FILETIME) to 1970-01-01. */
#define FILETIME_UNIX_EPOCH UINT64_C(116444736000000000)

static uint64_t counter_hz(void)
{
	static uint64_t hz;
	uint64_t f = __atomic_load_n(&hz, __ATOMIC_RELAXED);

	if (!f) {
		LARGE_INTEGER li;

		QueryPerformanceFrequency(&li); /* fixed at boot; never fails since XP */
		f = (uint64_t)li.QuadPart;
		__atomic_store_n(&hz, f, __ATOMIC_RELAXED);
	}
	return f;
}

uint64_t rfm__now_ns(void)
{
	LARGE_INTEGER li;
	uint64_t hz = counter_hz(), c;

	QueryPerformanceCounter(&li);
	c = (uint64_t)li.QuadPart;
	/* Whole seconds and the rest apart: c * 1e9 would overflow in days. */
	return c / hz * 1000000000u + c % hz * 1000000000u / hz;
}

uint64_t rfm__os_coarse_ns(void)
{
	return GetTickCount64() * 1000000u;
}

void rfm__os_yield(void)
{
	SwitchToThread();
}

uint64_t rfm__os_realtime_ns(void)
{
	FILETIME ft;
	uint64_t t;

	GetSystemTimePreciseAsFileTime(&ft);
	t = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
	return t > FILETIME_UNIX_EPOCH ? (t - FILETIME_UNIX_EPOCH) * 100u : 0;
}

void rfm__os_sleep_ns(uint64_t ns)
{
	uint64_t ms = (ns + 999999u) / 1000000u;

	Sleep(ms > 0xfffffffeu ? 0xfffffffeu : (DWORD)ms);
}

/*
 * A high-resolution waitable timer where Windows has one (10, 1803 and
 * later), else Sleep() to the millisecond: the deadline is absolute, so a
 * late wake-up does not shift the next one.
 */
void rfm__os_sleep_until_ns(uint64_t deadline_ns)
{
	uint64_t now = rfm__now_ns();
	HANDLE timer;
	LARGE_INTEGER due;

	if (now >= deadline_ns)
		return;
	timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
				       TIMER_ALL_ACCESS);
	if (!timer) {
		rfm__os_sleep_ns(deadline_ns - now);
		return;
	}
	/* Relative, in 100-ns units (negative): the counter is not FILETIME. */
	due.QuadPart = -(LONGLONG)((deadline_ns - now + 99u) / 100u);
	if (SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE))
		WaitForSingleObject(timer, INFINITE);
	else
		rfm__os_sleep_ns(deadline_ns - now);
	CloseHandle(timer);
}

DWORD rfm__win_ms_until(uint64_t deadline_ns)
{
	uint64_t now, ms;

	if (!deadline_ns)
		return INFINITE;
	now = rfm__now_ns();
	if (now >= deadline_ns)
		return 0;
	ms = (deadline_ns - now + 999999u) / 1000000u;
	return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}
