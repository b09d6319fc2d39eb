-- the listing
SELECT f.path, count(*) AS n FROM files f
LEFT JOIN entries e ON e.file_id = f.id
WHERE f.cwd = 'it''s' AND f.size > 1024
GROUP BY f.path ORDER BY n DESC LIMIT 10;
