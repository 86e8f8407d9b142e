/**
 * Commits made through the connections of this process, by database file. A read (and a generation's
 * queued write) looks for other connections' commits (PRAGMA data_version) once per event-loop turn, and
 * again within the turn only when this count moved: asking on every read cost a sixth of a project
 * request's CPU. So a read sees every commit of this process, and every commit of another process made
 * before the turn's first look.
 */
const commitsInProcess = new Map<string, number>();

export function announceCommit(file: string): void {
  commitsInProcess.set(file, (commitsInProcess.get(file) ?? 0) + 1);
}

export const commitsAnnounced = (file: string): number => commitsInProcess.get(file) ?? 0;
