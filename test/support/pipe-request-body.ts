/** A pipe create body with credentials at two depths (source and schema registry): what redaction must find. */
export const pipeBodyWithCredentials = {
  name: 'orders',
  source: {
    kafka: {
      brokers: 'b:9092',
      topics: 'orders',
      credentials: { username: 'kafka-user', password: 'kafka-pass-123' },
      schemaRegistry: { url: 'https://sr', credentials: { username: 'sr-user', password: 'sr-pass-456' } },
    },
  },
  destination: { database: 'db', table: 't' },
};
