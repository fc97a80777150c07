#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int config_set(struct config *cfg, const char *key, const char *value)
{
	if (strcmp(key, "version") == 0) {
		cfg->version = atoi(value);
	} else if (strcmp(key, "listen") == 0) {
		if (strlen(value) >= sizeof(cfg->listen))
			return -EINVAL;
		strcpy(cfg->listen, value);
	} else if (strcmp(key, "workers") == 0) {
		cfg->workers = atoi(value);
		if (cfg->workers <= 0)
			return -EINVAL;
	} else if (strcmp(key, "verbose") == 0) {
		cfg->verbose = atoi(value) != 0;
	} else if (strcmp(key, "max_body") == 0) {
		cfg->max_body = strtoul(value, NULL, 10);
	} else {
		return -EINVAL;
	}
	return 0;
}

int config_load(const char *path, struct config *out)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;
	int rc = 0;

	fp = fopen(path, "r");
	if (!fp)
		return -errno;

	memset(out, 0, sizeof(*out));
	while (getline(&line, &cap, fp) != -1) {
		char *key, *value;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		key = strtok(line, "=");
		value = strtok(NULL, "\n");
		if (!key || !value) {
			fprintf(stderr, "%s:%d: expected key=value\n", path, lineno);
			rc = -EINVAL;
			goto out;
		}
		if (strcmp(key, "version") == 0 && atoi(value) > CONFIG_VERSION) {
			fprintf(stderr, "%s: format version %s is newer than %d\n", path, value, CONFIG_VERSION);
			return -ENOTSUP;
		}
		rc = config_set(out, key, value);
		if (rc < 0) {
			fprintf(stderr, "%s:%d: bad setting '%s'\n", path, lineno, key);
			goto out;
		}
	}
out:
	free(line);
	fclose(fp);
	return rc;
}
