#ifndef DEVICE_H
#define DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define DEVICE_NAME_MAX 32

struct device {
	uint32_t id;
	char name[DEVICE_NAME_MAX]; /* NUL-terminated, at most DEVICE_NAME_MAX - 1 chars */
	uint8_t flags;
	struct device *next;
};

#define DEVICE_F_ONLINE 0x01
#define DEVICE_F_FAULTY 0x02

int device_register(struct device *dev, uint32_t id, const char *name);
void device_unregister(struct device *dev);
struct device *device_find(uint32_t id);
size_t device_count(void);

#endif /* DEVICE_H */
