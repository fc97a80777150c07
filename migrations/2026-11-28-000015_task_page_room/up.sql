-- Room on each new page for every row's next version, not one in ten. A task row
-- (about 270 bytes) is written twice within milliseconds: its insert, then its
-- queue message id. At fillfactor 90 the second write found no room on the page
-- for about 30 % of the rows (n_tup_hot_upd 39,856 of 56,943 in the webhooks
-- bench), and each of those wrote a new entry in all 16 indexes of the table:
-- the message ids' writes read 916-1,058 pages each, more than the inserts.
ALTER TABLE review_tasks SET (fillfactor = 50);
