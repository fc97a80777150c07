package com.example.scheduler;

import java.util.logging.Logger;

public class Scheduler {
    private static final Logger LOG = Logger.getLogger(Scheduler.class.getName());

    private final SlotTable table;
    private final JobStore jobs;

    public Scheduler(SlotTable table, JobStore jobs) {
        this.table = table;
        this.jobs = jobs;
    }

    /** Runs the job in the first free slot; returns false when all slots are busy. */
    public boolean submit(Job job) {
        int slot = table.firstFree();
        if (slot < 0) {
            LOG.info("no free slot for job " + job.id());
            return false;
        }
        jobs.markRunning(job.id(), slot);
        table.put(slot, job);
        return true;
    }

    public void finish(int slot) {
        Job job = table.release(slot);
        if (job != null) {
            jobs.markDone(job.id());
        }
    }
}
