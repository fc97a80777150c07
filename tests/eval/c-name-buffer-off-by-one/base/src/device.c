#include "device.h"

#include <errno.h>
#include <string.h>

static struct device *registry;

int device_register(struct device *dev, uint32_t id, const char *name)
{
	if (device_find(id))
		return -EEXIST;
	if (strlen(name) >= DEVICE_NAME_MAX)
		return -ENAMETOOLONG;

	dev->id = id;
	strcpy(dev->name, name);
	dev->flags = DEVICE_F_ONLINE;
	dev->next = registry;
	registry = dev;
	return 0;
}

void device_unregister(struct device *dev)
{
	struct device **p;

	for (p = &registry; *p; p = &(*p)->next) {
		if (*p == dev) {
			*p = dev->next;
			dev->next = NULL;
			return;
		}
	}
}

struct device *device_find(uint32_t id)
{
	struct device *d;

	for (d = registry; d; d = d->next)
		if (d->id == id)
			return d;
	return NULL;
}

size_t device_count(void)
{
	size_t n = 0;
	struct device *d;

	for (d = registry; d; d = d->next)
		n++;
	return n;
}
