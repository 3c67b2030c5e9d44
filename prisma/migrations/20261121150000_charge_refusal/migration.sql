-- Raised inside the single statement of POST /charges when the token claim or the test-charge quota
-- is refused: the error undoes the whole statement (claim, quota, charge, event). SQLSTATE KS001.
-- The Prisma migration runner splits scripts at every semicolon, even quoted ones, so the one in the
-- body is written as the escape \073.
CREATE FUNCTION kessai_refuse(reason text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS E'BEGIN RAISE EXCEPTION USING ERRCODE = ''KS001'', MESSAGE = reason\073 END';
