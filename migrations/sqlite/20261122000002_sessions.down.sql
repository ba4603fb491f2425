DROP TABLE record_details;
--bun:split
DROP TABLE session_records;
--bun:split
DROP TABLE search_sessions;
