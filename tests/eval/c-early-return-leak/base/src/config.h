#ifndef CONFIG_H
#define CONFIG_H

#include <stddef.h>

/* Highest config file format this build understands. */
#define CONFIG_VERSION 2

struct config {
	int version;
	char listen[64];
	int workers;
	int verbose;
	size_t max_body;
};

/* Loads `path` into `out`. Returns 0 or a negative errno. */
int config_load(const char *path, struct config *out);

/* Sets one key; returns 0, or -EINVAL for an unknown key or bad value. */
int config_set(struct config *cfg, const char *key, const char *value);

#endif /* CONFIG_H */
