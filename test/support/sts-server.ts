import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An STS endpoint for one role (AssumeRole of the AWS Query protocol, what @aws-sdk/client-sts
 * sends), for the tests: AWS's own STS is not reachable here. It grants the role only with the
 * expected external id and answers credentials that are the local S3 server's own key, so a
 * connection that assumed the role really writes with what STS handed out. Unlike AWS, it sends no
 * SessionToken: S3Proxy answers 501 NotImplemented to an `x-amz-security-token` header, and
 * carrying the token is the SDK's job, not ours. Every call is recorded.
 */
export interface AssumeRoleCall {
  roleArn: string | null;
  externalId: string | null;
  sessionName: string | null;
  /** The access key id of the identity that signed the call (the service's own credentials). */
  signedBy: string | null;
}

export interface StsServer {
  url: string;
  calls: AssumeRoleCall[];
  stop(): Promise<void>;
}

export async function startStsServer(role: {
  roleArn: string;
  externalId: string;
  grants: { accessKeyId: string; secretAccessKey: string };
}): Promise<StsServer> {
  const calls: AssumeRoleCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const signedBy = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? null;
      const call = {
        roleArn: form.get('RoleArn'),
        externalId: form.get('ExternalId'),
        sessionName: form.get('RoleSessionName'),
        signedBy,
      };
      calls.push(call);
      const requestId = randomBytes(8).toString('hex');
      res.setHeader('content-type', 'text/xml');
      if (form.get('Action') !== 'AssumeRole' || call.roleArn !== role.roleArn || call.externalId !== role.externalId) {
        res.statusCode = 403;
        res.end(
          `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code>` +
            `<Message>Not authorized to perform sts:AssumeRole on ${call.roleArn ?? '(none)'}</Message></Error>` +
            `<RequestId>${requestId}</RequestId></ErrorResponse>`,
        );
        return;
      }
      const expiration = new Date(Date.now() + 3600_000).toISOString();
      res.end(
        `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
          `<AssumedRoleUser><Arn>${role.roleArn}/${call.sessionName ?? ''}</Arn><AssumedRoleId>AROATEST:${call.sessionName ?? ''}</AssumedRoleId></AssumedRoleUser>` +
          `<Credentials><AccessKeyId>${role.grants.accessKeyId}</AccessKeyId><SecretAccessKey>${role.grants.secretAccessKey}</SecretAccessKey>` +
          `<Expiration>${expiration}</Expiration></Credentials>` +
          `</AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
