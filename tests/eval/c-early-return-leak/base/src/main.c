#include <stdio.h>
#include <string.h>

#include "config.h"

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-c FILE]\n", prog);
}

int main(int argc, char **argv)
{
	struct config cfg;
	const char *path = "/etc/relayd.conf";
	int rc;

	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		path = argv[2];
	} else if (argc != 1) {
		usage(argv[0]);
		return 2;
	}
	rc = config_load(path, &cfg);
	if (rc < 0) {
		fprintf(stderr, "cannot load %s: %s\n", path, strerror(-rc));
		return 1;
	}
	printf("listening on %s with %d workers\n", cfg.listen, cfg.workers);
	return 0;
}
