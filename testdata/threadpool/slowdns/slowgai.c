// slowgai: a stand-in for a DNS resolver some distance away, for LD_PRELOAD. Every
// getaddrinfo(3) call sleeps SLOWGAI_MS milliseconds, then asks the real one. Node's dns.lookup
// calls getaddrinfo on a threadpool thread, so a lookup holds its thread as long as a lookup to
// a real, remote resolver would; the name asked (localhost) still resolves from /etc/hosts, so
// nothing leaves the machine.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <time.h>

typedef int (*getaddrinfo_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
	static getaddrinfo_fn real;
	if (!real) {
		real = (getaddrinfo_fn)dlsym(RTLD_NEXT, "getaddrinfo");
		if (!real) return EAI_SYSTEM;
	}
	const char *ms = getenv("SLOWGAI_MS");
	if (ms) {
		long v = atol(ms);
		if (v > 0) {
			struct timespec ts = {v / 1000, (v % 1000) * 1000000L};
			while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
			}
		}
	}
	return real(node, service, hints, res);
}
