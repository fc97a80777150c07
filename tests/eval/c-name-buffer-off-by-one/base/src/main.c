#include <stdio.h>
#include <stdlib.h>

#include "device.h"

static struct device devices[8];

int main(int argc, char **argv)
{
	int i, rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s NAME...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc && i <= 8; i++) {
		rc = device_register(&devices[i - 1], (uint32_t)i, argv[i]);
		if (rc < 0) {
			fprintf(stderr, "%s: cannot register (%d)\n", argv[i], rc);
			return 1;
		}
	}
	printf("%zu devices registered\n", device_count());
	return 0;
}
