package com.example.scheduler;

/** A fixed table of execution slots; each running job occupies one slot. */
public final class SlotTable {
    public static final int SLOT_COUNT = 16;

    private final Job[] slots = new Job[SLOT_COUNT];
    private int used;

    public synchronized boolean isFree(int slot) {
        return slots[slot] == null;
    }

    public synchronized void put(int slot, Job job) {
        if (slots[slot] != null) {
            throw new IllegalStateException("slot " + slot + " is busy");
        }
        slots[slot] = job;
        used++;
    }

    public synchronized Job release(int slot) {
        Job job = slots[slot];
        slots[slot] = null;
        if (job != null) {
            used--;
        }
        return job;
    }

    public synchronized int firstFree() {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == null) {
                return i;
            }
        }
        return -1;
    }

    public synchronized int used() {
        return used;
    }
}
