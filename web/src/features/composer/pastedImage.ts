/** Re-encodes a pasted clipboard image as JPEG (product spec §2: pasted files are added as jpeg). */
export async function toJpeg(blob: Blob, name = `pasted-${Date.now()}.jpg`): Promise<File> {
  const bitmap = await createImageBitmap(blob);
  const canvas = document.createElement('canvas');
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('no 2d context');
  // JPEG has no transparency: flatten on white, as the server does for thumbnails.
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  const jpeg = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
  if (jpeg === null) throw new Error('could not encode JPEG');
  return new File([jpeg], name, { type: 'image/jpeg' });
}
