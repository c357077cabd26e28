/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: which Host headers it answers. A page on another site can
 * make a browser send requests here under a name that the attacker's DNS
 * points at 127.0.0.1 (DNS rebinding); the browser then treats our answers
 * as that site's. Such a request carries the attacker's name in Host, so
 * only names that cannot be rebound are answered: "localhost" and IP
 * literals, with this server's port if a port is given.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve.h"

/* The port part of a Host header ("" or ":N") is ours (or absent). */
static bool port_ok(const char *p, uint16_t port)
{
	char *end;
	unsigned long n;

	if (!*p)
		return true;
	if (*p != ':' || !p[1] || p[1] < '0' || p[1] > '9')
		return false;
	n = strtoul(p + 1, &end, 10);
	return !*end && n == port;
}

bool serve_host_allowed(const char *host, uint16_t port)
{
	char name[64];
	unsigned char addr[16];
	const char *rest;
	size_t len;

	if (!host)
		return false; /* HTTP/1.0 without Host: no name to trust */
	if (host[0] == '[') {
		rest = strchr(host, ']');
		if (!rest)
			return false;
		len = (size_t)(rest - host - 1);
		if (len >= sizeof(name))
			return false;
		memcpy(name, host + 1, len);
		name[len] = 0;
		return inet_pton(AF_INET6, name, addr) == 1 && port_ok(rest + 1, port);
	}
	rest = strchr(host, ':');
	len = rest ? (size_t)(rest - host) : strlen(host);
	if (len >= sizeof(name))
		return false;
	memcpy(name, host, len);
	name[len] = 0;
	if (!rest)
		rest = "";
	if (!strcasecmp(name, "localhost"))
		return port_ok(rest, port);
	return inet_pton(AF_INET, name, addr) == 1 && port_ok(rest, port);
}
